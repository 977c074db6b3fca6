/** One request the emulator saw. */
export interface RequestLogEntry {
  method: string;
  /** Path without query string. */
  path: string;
  /** The matched route pattern, or '(unmatched)'. */
  route: string;
  /** Status answered; 0 when the connection was dropped (dropNext). */
  status: number;
  /** Emulator time (ms epoch) when the request arrived. */
  time: number;
  /** Requests the emulator was handling when this one arrived, itself included: how many the client had on the wire. */
  inFlight: number;
}

/** The request log: every request in arrival order, plus counts per `METHOD route`. */
export interface RequestLog extends Array<RequestLogEntry> {
  /** Requests per `METHOD /route/pattern`, e.g. `{"GET /cloud/v1/tasks/{task_id}": 12}`. */
  countByRoute(): Record<string, number>;
}

/** Creates an empty request log. */
export function createRequestLog(): RequestLog {
  // An array that gains its countByRoute method on the next line: a RequestLog once that is set.
  const log = [] as unknown as RequestLog;
  Object.defineProperty(log, 'countByRoute', {
    enumerable: false,
    value: (): Record<string, number> => {
      const counts: Record<string, number> = {};
      for (const entry of log) {
        const key = `${entry.method} ${entry.route}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return counts;
    },
  });
  return log;
}
