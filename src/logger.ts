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

/**
 * A failure a loop meets on every pass (its database gone, a lock held, a
 * peer down) is logged once, with its stack, at error; each repeat of the same
 * failure only at debug, counted; a different failure at error again; and
 * once the loop works again, that it does, at info. A data directory removed
 * under a running host once filled the log with 74 identical stacks in eight
 * seconds, burying the one line that said why.
 */
export class RepeatedFailure {
  #last: string | undefined;
  #repeats = 0;

  constructor(private readonly log: Pick<Logger, 'error' | 'debug' | 'info'>) {}

  failed(err: unknown, bindings: Record<string, unknown>, message: string): void {
    const same = failureOf(err);
    if (same === this.#last) {
      this.#repeats += 1;
      this.log.debug({ ...bindings, error: same, repeats: this.#repeats }, `${message} (again; logged once until it changes)`);
      return;
    }
    this.#last = same;
    this.#repeats = 0;
    this.log.error({ ...bindings, err }, message);
  }

  /** The loop's pass worked: says so if it had been failing. */
  worked(message: string): void {
    if (this.#last === undefined) return;
    this.log.info({ after: this.#last, repeats: this.#repeats }, message);
    this.#last = undefined;
    this.#repeats = 0;
  }
}

/** What makes two failures the same one: their code and message, not their stacks. */
function failureOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return `${typeof code === 'string' ? `${code}: ` : ''}${err.message}`;
}
