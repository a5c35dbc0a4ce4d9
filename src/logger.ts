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

/**
 * Fastify gives every request a child logger stamped with its request id. pino
 * builds a child eagerly (its bindings serialised through the redaction
 * rules) although at the usual levels a request that succeeds logs nothing:
 * on a tail poll that was the largest cost of ours. This one builds the pino
 * child only when a line is actually written at an enabled level.
 */
export function requestLogger(parent: Logger, bindings: pino.Bindings, options: pino.ChildLoggerOptions): Logger {
  if (options.level !== undefined) return parent.child(bindings, options);
  return new RequestLogger(parent, bindings) as unknown as Logger;
}

class RequestLogger {
  #child: Logger | undefined;
  constructor(
    private readonly parent: Logger,
    private readonly bindings: pino.Bindings,
  ) {}

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.#real().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  #write(level: pino.Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }

  #real(): Logger {
    return (this.#child ??= this.parent.child(this.bindings));
  }
}
