/**
 * The public types are exact: a misspelt field does not compile, enums are unions, and editor
 * hovers name the interfaces. The `@ts-expect-error` lines are checked by `tsc --noEmit` (the test
 * tree is type-checked): each fails the type check the day its line compiles. The run-time half
 * proves that unknown input keys are refused before any request, and unknown output fields kept.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  InputValidationError,
  type PartnerProfile,
  type Reservation,
  ReservationCancelledError,
  type Restaurant,
  type Webhook,
  type WebhookCreateInput,
} from 'restaurant-partner-sdk';
import { type ConfirmationMode } from '../../src/resources/reservations.schemas.js';
import { type SubscribedEvents } from '../../src/resources/webhooks.schemas.js';
import { json, mockApi, restaurantBody, createdAnswer } from '../support/hostile-server.js';

const api = mockApi();
const start_time = '2026-12-05T19:30:00';

describe('exact public types', () => {
  it('refuse misspelt fields on what the service returns, and type enums as unions', () => {
    expectTypeOf<Reservation['confirmation_mode']>().toEqualTypeOf<ConfirmationMode | undefined>();
    expectTypeOf<ConfirmationMode>().toEqualTypeOf<
      'CONFIRMATION_MODE_SYNCHRONOUS' | 'CONFIRMATION_MODE_ASYNCHRONOUS'
    >();
    expectTypeOf<Reservation>().not.toHaveProperty('confirmd');
    expectTypeOf<Reservation['id']>().toEqualTypeOf<number>();
    expectTypeOf<Restaurant['timezone']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<SubscribedEvents>().toEqualTypeOf<{
      RESERVATION_CONFIRMED?: boolean | undefined;
      RESERVATION_MODIFIED?: boolean | undefined;
      RESERVATION_CANCELLED?: boolean | undefined;
    }>();
    expectTypeOf<ReservationCancelledError['reservation']>().toEqualTypeOf<Reservation>();
    const read = (
      reservation: Reservation,
      restaurant: Restaurant,
      profile: PartnerProfile,
      webhook: Webhook,
    ) => [
      // @ts-expect-error misspelt field of a reservation
      reservation.confirmd,
      // @ts-expect-error misspelt field of a restaurant
      restaurant.timezon,
      // @ts-expect-error misspelt field of the profile
      profile.nmae,
      // @ts-expect-error misspelt field of a webhook
      webhook.auth_tokne,
      // @ts-expect-error a mode the spec does not list
      reservation.confirmation_mode === 'CONFIRMATION_MODE_SYNC',
    ];
    expect(read).toBeTypeOf('function');
  });

  it('refuse misspelt input keys at compile time and at run time, naming the field, before any request', async () => {
    const input: WebhookCreateInput = {
      url: 'https://partner.example/hooks',
      // @ts-expect-error misspelt key of a webhook's subscribed_events
      subscribed_events: { RESERVATION_CONFRIMED: true },
    };
    expect(input.url).toBeDefined();
    api.reply(() => json([restaurantBody()]));
    const client = api.client();
    const error = await client.reservations
      // @ts-expect-error misspelt field of a create input
      .create(7, { start_time, adults: 2, frist_name: 'Ada' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).field).toBe('frist_name');
    expect((error as InputValidationError).message).toContain('frist_name: unknown field');
    // @ts-expect-error misspelt field of a profile update
    await expect(client.profile.update({ nmae: 'Partner' })).rejects.toMatchObject({
      name: 'InputValidationError',
      field: 'nmae',
    });
    expect(api.calls).toHaveLength(0);
  });

  it('still keep unknown response fields at run time', async () => {
    api.reply(() => json([restaurantBody({ id: 7 })]), createdAnswer({ table_number: 12 }));
    const reservation = await api.client().reservations.create(7, { start_time, adults: 2 });
    expect((reservation as unknown as Record<string, unknown>).table_number).toBe(12);
  });

  it('show named interfaces in editor hovers', () => {
    // The same sample the packed-tarball check reads through the published types.
    const file = fileURLToPath(new URL('../../scripts/packed-project/hover-sample.ts', import.meta.url));
    const entry = (name: string) => fileURLToPath(new URL(`../../src/${name}`, import.meta.url));
    const program = ts.createProgram([file], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      paths: {
        'restaurant-partner-sdk': [entry('index.ts')],
        'restaurant-partner-sdk/webhooks': [entry('webhooks/index.ts')],
      },
    });
    const checker = program.getTypeChecker();
    const source = program.getSourceFile(file)!;
    const hovers: Record<string, string> = {};
    source.forEachChild((node) => {
      if (!ts.isVariableStatement(node)) return;
      for (const declaration of node.declarationList.declarations) {
        hovers[declaration.name.getText(source)] = checker.typeToString(
          checker.getTypeAtLocation(declaration.name),
        );
      }
    });
    expect(hovers).toMatchObject({
      reservation: 'Reservation',
      restaurants: 'Restaurant[]',
      profile: 'PartnerProfile',
      webhook: 'Webhook',
      event: 'ReservationEventOf<"RESERVATION_MODIFIED">',
    });
  });
});
