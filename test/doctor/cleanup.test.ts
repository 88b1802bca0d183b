/**
 * What doctor could not remove is reported with its id, and the exit code is 1: a service that
 * keeps refusing the cancel (or the webhook's delete) leaves a `FAIL cleanup` line naming it.
 * An abort mid-run (the bin's SIGINT) cleans up and exits 1.
 */
import { describe, expect, it } from 'vitest';
import { world } from './support.js';

describe('doctor clean-up', () => {
  it('a cancel the service keeps refusing: FAIL cleanup naming the reservation, exit 1', async () => {
    const { fake, doctor } = await world();
    fake.injectFault({
      operation: 'reservations.cancel',
      status: 409,
      body: { detail: 'Locked.' },
      times: 20,
    });
    const run = await doctor();
    expect(run.result.exitCode).toBe(1);
    const [, id, restaurant] = /^created reservation (\d+) at restaurant (\d+)/m.exec(run.output)!;
    expect(run.output).toMatch(
      new RegExp(
        `^FAIL {2}cleanup: could not remove reservation ${id} at restaurant ${restaurant}: .*409`,
        'm',
      ),
    );
    expect(run.output).toMatch(/-> remove it by hand/);
    expect(run.result.leftBehind).toEqual([`reservation ${id} at restaurant ${restaurant}`]);
    fake.dispose();
  });

  it('a webhook delete the service keeps failing: FAIL cleanup naming the webhook, exit 1', async () => {
    const { fake, doctor } = await world();
    fake.injectFault({ operation: 'webhooks.delete', status: 500, times: 20 });
    const run = await doctor();
    expect(run.result.exitCode).toBe(1);
    const [, id] = /^created webhook (\d+) \(temporary\)$/m.exec(run.output)!;
    expect(run.result.leftBehind).toEqual([`webhook ${id}`]);
    expect(run.output).toMatch(new RegExp(`^FAIL {2}cleanup: could not remove webhook ${id}: `, 'm'));
    fake.dispose();
  });

  it('aborted mid-run: what was created is cancelled, and the run exits 1', async () => {
    const { fake, doctor } = await world();
    const controller = new AbortController();
    const lines: string[] = [];
    const run = await doctor({
      signal: controller.signal,
      print: (text) => {
        lines.push(text);
        if (/^created reservation/.test(text)) controller.abort();
      },
    });
    expect(run.result).toMatchObject({ exitCode: 1, interrupted: true, leftBehind: [] });
    const output = lines.join('\n');
    expect(output).toMatch(/FAIL {2}run: interrupted/);
    const [, id, restaurant] = /^created reservation (\d+) at restaurant (\d+)/m.exec(output)!;
    expect(output).toMatch(new RegExp(`^cancelled reservation ${id}$`, 'm'));
    expect(fake.allReservations(Number(restaurant)).find((row) => row.id === Number(id))).toMatchObject({
      cancelled: true,
    });
    fake.dispose();
  });
});

describe('doctor and a form it does not know', () => {
  it('a webhook create answered 202: createStatus is left unknown with a warning naming the form, never guessed', async () => {
    const { fake, doctor } = await world();
    fake.injectFault({
      operation: 'webhooks.create',
      phase: 'after',
      status: 202,
      body: { id: 1, url: 'https://partner.example.test/in', name: 'temporary', is_enabled: true },
    });
    fake.registerDeliveryHandler(
      'https://partner.example.test/in',
      () => new Response(null, { status: 200 }),
    );
    const run = await doctor({ probeWrites: false, webhookUrl: 'https://partner.example.test/in' });
    expect(run.output).toMatch(
      /WARN {2}dialect: the service answers createStatus in a form this version does not know \(202\): left unknown/,
    );
    expect(run.file!.unknown).toContain('createStatus');
    expect(run.file!.points.createStatus).toBeUndefined();
    expect(run.output).toMatch(/^deleted webhook 1$/m);
    fake.dispose();
  });
});
