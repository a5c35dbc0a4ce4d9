import pino, { type Logger } from 'pino';

/**
 * The one logger. Requests are logged by method and path only: query strings
 * (sign-in links carry codes) and headers (bearer keys, cookies) never reach the
 * log, and known secret-bearing fields are redacted wherever they appear.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['*.authorization', '*.cookie', '*.key', '*.token', '*.poll_secret', '*.password', 'req.headers'],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method?: string; url?: string; ip?: string }) => ({
          method: req.method,
          path: (req.url ?? '').split('?')[0],
          remoteAddress: req.ip,
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
