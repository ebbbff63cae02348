import pino, { type Logger } from 'pino';

/** Paths redacted from every log line, whatever a caller passes to the logger. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  '*.apiKey',
  '*.password',
  '*.clientSecret',
  '*.client_secret',
  '*.access_token',
  'apiKey',
  'password',
  'clientSecret',
  'access_token',
];

/** Structured JSON logs on stdout, written asynchronously so a slow terminal never blocks a request. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'partner-booking-wallet' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 }),
  );
}
