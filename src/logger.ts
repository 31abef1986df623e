import winston from 'winston';

export type Logger = winston.Logger;

/** JSON lines on stdout; one line per request plus whatever the modules log with the request id. */
export function createLogger(level: string, options: { silent?: boolean } = {}): Logger {
  return winston.createLogger({
    level,
    silent: options.silent ?? false,
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    defaultMeta: { service: 'discovery' },
    transports: [new winston.transports.Console()],
  });
}
