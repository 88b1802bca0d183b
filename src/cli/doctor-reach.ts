/**
 * Doctor's first checks: the configuration as given (reported whatever the service answers), then
 * one read of the profile that tells the service reached (DNS, TLS, a proxy answering instead) and
 * the credentials accepted.
 * @module
 */
import {
  ConnectionError,
  PartnerApiError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
} from '../errors.js';
import type { DoctorContext } from './doctor-checks.js';
import { errorCode } from './doctor-probe.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const API_SUFFIX = /\/api\/v1\/partnership\/?$/;

/** The configuration as given: reported whatever the service answers. */
export function checkConfig(context: DoctorContext): void {
  const { config, report } = context;
  if (!UUID.test(config.partnerId))
    report.add(
      'config',
      'fail',
      `PARTNER_ID "${config.partnerId}" is not a UUID`,
      'use the partner UUID the service gave you',
    );
  if (config.token !== config.token.trim())
    report.add(
      'config',
      'warn',
      'PARTNER_TOKEN has leading or trailing whitespace (sent as given)',
      'remove the spaces or line break around the token (a copied line often carries one)',
    );
  if (API_SUFFIX.test(new URL(config.baseUrl).pathname))
    report.add(
      'config',
      'warn',
      `PARTNER_BASE_URL ends in /api/v1/partnership (the client appends it; using ${context.client.baseUrl})`,
      'set PARTNER_BASE_URL to the part before /api/v1/partnership',
    );
}

/** Why the service could not be reached, in a partner's words. */
function unreachable(error: unknown, host: string): [string, string] {
  const code = errorCode(error) ?? '';
  if (error instanceof TimeoutError)
    return [`no answer from ${host} in time`, 'check the URL, a firewall, or a proxy on the way'];
  if (/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME)$/.test(code))
    return [`DNS: ${host} does not resolve (${code})`, 'check the host name in PARTNER_BASE_URL'];
  if (code === 'ECONNREFUSED')
    return [`nothing listens at ${host} (${code})`, 'check the host and port in PARTNER_BASE_URL'];
  if (/CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ALTNAME/i.test(code))
    return [
      `TLS: the certificate of ${host} is not accepted (${code})`,
      'check the host name; a proxy intercepting TLS needs its CA (NODE_EXTRA_CA_CERTS)',
    ];
  if (/^(EPROTO|HPE_|ERR_SSL)/.test(code))
    return [
      `${host} does not speak the expected protocol (${code})`,
      'check http vs https and the port in PARTNER_BASE_URL',
    ];
  return [
    `the connection to ${host} failed${code ? ` (${code})` : ''}`,
    'check the URL, the network and any proxy',
  ];
}

/** Reads the profile: the service reached, and the credentials accepted. False when nothing further can be checked. */
export async function checkReachAndCredentials(context: DoctorContext): Promise<boolean> {
  const { client, probe, report } = context;
  const host = new URL(client.baseUrl).host;
  try {
    const profile = await client.request({ method: 'GET', path: 'profile/' }, { signal: context.signal });
    const foreign = probe.foreignAnswers[0];
    if (foreign) {
      report.add(
        'reach',
        'fail',
        `something other than the service answered at ${host}: ${foreign.contentType}, "${foreign.start}"`,
        'check PARTNER_BASE_URL and any proxy between you and the service',
      );
      return false;
    }
    const record: unknown = Array.isArray(profile) ? profile[0] : profile;
    if (typeof record !== 'object' || record === null) {
      report.add(
        'reach',
        'fail',
        `${host} answered the profile with something that is not a profile`,
        'check PARTNER_BASE_URL',
      );
      return false;
    }
    const name = (record as { name?: unknown }).name;
    report.add('reach', 'pass', `reached ${client.baseUrl}`);
    report.add('credentials', 'pass', `accepted${typeof name === 'string' ? ` (partner "${name}")` : ''}`);
    return true;
  } catch (error) {
    if (!reportRefusal(context, error, host)) throw error;
    return false;
  }
}

type Refusal = [verdict: 'pass' | 'fail', check: string, message: string, fix?: string][];

/** The lines for a profile read that failed; false when the failure is none the checks know. */
function reportRefusal(context: DoctorContext, error: unknown, host: string): boolean {
  const { client, probe, report, config } = context;
  const reached: Refusal[number] = ['pass', 'reach', `reached ${client.baseUrl}`];
  const status = error instanceof PartnerApiError ? error.status : undefined;
  const foreign = probe.foreignAnswers[0];
  const spaces =
    config.token !== config.token.trim() ? ' (the token has whitespace around it: likely the cause)' : '';
  const location = (error as { headers?: Record<string, string> }).headers?.location;
  const cases: [boolean, () => Refusal][] = [
    [error instanceof ConnectionError, () => [['fail', 'reach', ...unreachable(error, host)]]],
    [
      status === 401,
      () => [
        reached,
        [
          'fail',
          'credentials',
          `the service refused PARTNER_ID and PARTNER_TOKEN (401)${spaces}`,
          'check both values; a regenerated token replaces the old one',
        ],
      ],
    ],
    [
      status === 407,
      () => [
        [
          'fail',
          'reach',
          'a proxy answered instead of the service (407 Proxy Authentication Required)',
          'configure the proxy (HTTPS_PROXY) or reach the service directly',
        ],
      ],
    ],
    [
      foreign !== undefined,
      () => [
        [
          'fail',
          'reach',
          `something other than the service answered at ${host}: ${foreign!.status}, ${foreign!.contentType}, "${foreign!.start}"`,
          'check PARTNER_BASE_URL and any proxy between you and the service',
        ],
      ],
    ],
    [
      status !== undefined && status >= 300 && status < 400,
      () => [
        [
          'fail',
          'reach',
          `${host} redirects the API (${status}${location ? ` to ${location}` : ''}): a login page or another host answered`,
          'set PARTNER_BASE_URL to the service itself',
        ],
      ],
    ],
    [
      status === 403,
      () => [
        reached,
        [
          'fail',
          'credentials',
          'the service knows the credentials but refuses the profile (403)',
          'ask the service to enable the partner account',
        ],
      ],
    ],
    [
      status === 404,
      () => [
        [
          'fail',
          'reach',
          `${host} has no partner API at ${client.baseUrl}/api/v1/partnership/ (404)`,
          'check PARTNER_BASE_URL (scheme, host and any path prefix)',
        ],
      ],
    ],
    [
      error instanceof RateLimitError,
      () => [
        [
          'fail',
          'reach',
          'the service kept answering 429: another process spends the rate budget',
          'run doctor when the other jobs are idle',
        ],
      ],
    ],
    [
      status !== undefined,
      () => [
        [
          'fail',
          'reach',
          `${host} answered ${status}${status! >= 500 ? ' (the service or a gateway in front of it failed)' : ''}`,
          'try again later; if it persists, tell the service',
        ],
      ],
    ],
    [
      error instanceof ResponseValidationError || error instanceof ResponseTooLargeError,
      () => [
        [
          'fail',
          'reach',
          `${host} answered with something that is not the service's answer (${(error as Error).name})`,
          'check PARTNER_BASE_URL and any proxy',
        ],
      ],
    ],
  ];
  const match = cases.find(([applies]) => applies);
  if (!match) return false;
  for (const [verdict, check, message, fix] of match[1]()) report.add(check, verdict, message, fix);
  return true;
}
