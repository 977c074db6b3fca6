/**
 * The runtime errors every layer may raise or recognise, in one module (HTTP-specific ones are in
 * src/api/errors.ts). Callers recognise them with `instanceof`, never by comparing `code` strings
 * or message text; `code` is stable (EDGEFORM_*) for machines reading the output. Only the CLI
 * boundary (cmd/edgeform.ts) turns them into exit codes. This module imports nothing, so
 * api/, providers/, plan/, apply/ and cli/ can all depend on it.
 */

/**
 * Base of every runtime error edgeform raises on purpose. The CLI boundary prints these as plain
 * messages and anything else as a bug.
 */
export class EdgeformError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A failure after which no request of this run can succeed: the platform refused the API key,
 * or it cannot be reached (or fails so many requests that the run's retry quota ran out). The
 * run stops with this one error instead of reporting it once per resource: plan, drift and the
 * reads of a saved plan end at once, apply starts no further action. The API layer defines the
 * subclasses; every layer recognises them with `instanceof RunFatalError`.
 */
export class RunFatalError extends EdgeformError {}

/** A problem the user can fix in the invocation; printed without a stack trace, exit 1. */
export class UsageError extends EdgeformError {
  constructor(message: string) {
    super('EDGEFORM_USAGE', message);
  }
}

/** The user interrupted the run (SIGINT/SIGTERM); exit code 130. */
export class InterruptedError extends EdgeformError {
  constructor(message = 'interrupted') {
    super('EDGEFORM_INTERRUPTED', message);
  }
}

/**
 * A multi-step change (a Kubernetes upgrade, one minor version at a time) that the first
 * interrupt stopped between steps: no further step was started. The executor reports it as
 * `stopped`, not failed.
 */
export class StoppedError extends EdgeformError {
  constructor(message: string) {
    super('EDGEFORM_STOPPED', message);
  }
}

/** A cloud task ended in ERROR; `error` is the platform's reason text. */
export class TaskFailedError extends EdgeformError {
  readonly taskId: string;
  readonly taskType: string;
  readonly error: string | null;

  constructor(details: { taskId: string; taskType: string; error: string | null }) {
    super('EDGEFORM_TASK_FAILED', `task ${details.taskId} (${details.taskType}) failed: ${details.error ?? 'the platform gave no reason'}`);
    this.taskId = details.taskId;
    this.taskType = details.taskType;
    this.error = details.error;
  }
}

/**
 * A CDN resource's Let's Encrypt certificate was not issued (its issuing status ended Failed or
 * Cancelled, or never ended within the wait); `reason` is the platform's error and details.
 */
export class CertificateIssueError extends EdgeformError {
  readonly address: string;
  readonly reason: string;
  constructor(details: { address: string; hosts: string; reason: string }) {
    // The executor names the resource (`address`) in front of the message.
    super('EDGEFORM_CERTIFICATE_NOT_ISSUED', `the Let's Encrypt certificate for ${details.hosts} was not issued: ${details.reason}`);
    this.address = details.address;
    this.reason = details.reason;
  }
}

/** A cloud task did not finish within its timeout; it may still be running on the platform. */
export class TaskTimeoutError extends EdgeformError {
  readonly taskId: string;
  readonly taskType: string;
  readonly elapsedMs: number;
  readonly lastState: string | null;

  constructor(details: { taskId: string; taskType: string; elapsedMs: number; lastState: string | null }) {
    super(
      'EDGEFORM_TASK_TIMEOUT',
      `task ${details.taskId} (${details.taskType}) did not finish within ${Math.round(details.elapsedMs / 1000)} s` +
        `${details.lastState ? ` (last state ${details.lastState})` : ''}; it may still be running on the platform`,
    );
    this.taskId = details.taskId;
    this.taskType = details.taskType;
    this.elapsedMs = details.elapsedMs;
    this.lastState = details.lastState;
  }
}

/**
 * Reading a task failed too many times in a row (outage, rate limit) to go on waiting. The task
 * itself may be fine and still running; `cause` is the last poll's error.
 */
export class TaskPollError extends EdgeformError {
  readonly taskId: string;
  /** Failed polls in a row. */
  readonly failures: number;
  /** The state the last successful poll read, or null when none succeeded. */
  readonly lastState: string | null;

  constructor(details: { taskId: string; failures: number; lastState: string | null; error: Error }) {
    super(
      'EDGEFORM_TASK_POLL_FAILED',
      `could not read task ${details.taskId}: ${details.failures} polls in a row failed` +
        `${details.lastState ? ` (last state read ${details.lastState})` : ''}; the task may still be running on the platform. ` +
        `Last error: ${details.error.message}`,
      { cause: details.error },
    );
    this.taskId = details.taskId;
    this.failures = details.failures;
    this.lastState = details.lastState;
  }
}

/**
 * The resource stayed locked by one task after another while a provider tried to recover from
 * a send whose outcome was unknown; nothing more was sent.
 */
export class StillLockedError extends EdgeformError {
  readonly taskId: string;
  constructor(taskId: string, waits: number) {
    super('EDGEFORM_STILL_LOCKED', `the resource is still locked by task ${taskId} after ${waits} waits on its lock; nothing more was sent. Run apply again once it is free.`);
    this.taskId = taskId;
  }
}

/**
 * The reads after an action show something other than the planned result. Given the address,
 * the planned and the observed fields, the message shows both; a provider that knows more (a
 * k8s upgrade step whose version never shows) gives its own message.
 */
export class InconsistentResultError extends EdgeformError {
  constructor(detail: string | { address: string; planned: unknown; observed: unknown }) {
    super(
      'EDGEFORM_INCONSISTENT_RESULT',
      typeof detail === 'string'
        ? detail
        : `inconsistent result after apply: ${detail.address} still does not show the planned result.\n  planned:  ${JSON.stringify(detail.planned)}\n  observed: ${JSON.stringify(detail.observed)}`,
    );
  }
}

/**
 * A request whose answer was lost after it was sent (a connection lost mid-exchange, or 408,
 * 500, 502, 504), after which the re-reads do not show the planned result: the platform most
 * likely did not act, but that is not proven, so nothing is sent again (a POST must never be
 * sent twice). Not an inconsistent result: the next run reads the resource again and decides
 * (a resource made late is found by its identity). A request that provably never reached the
 * platform (a refused connection) is no such case: the action simply did not start.
 */
export class OutcomeUnknownError extends EdgeformError {
  constructor(what: string, options?: { cause?: unknown }) {
    super(
      'EDGEFORM_OUTCOME_UNKNOWN',
      `${what}. The outcome is unknown: the request was sent and its answer was lost, and a re-read does not show it took effect, so it most likely did not. Nothing was sent again; run edgeform apply again (it reads the resource first)`,
      options,
    );
  }
}

/**
 * A change lacks what its provider needs to carry it out (a saved plan edited by hand or
 * written by another build). Refused before anything is sent: guessing could do harm (a
 * floating IP patch of `null` removes every user tag).
 */
export class PlanPayloadError extends EdgeformError {
  readonly address: string;
  constructor(change: { address: string; action: string }, problem: string) {
    super('EDGEFORM_PLAN_PAYLOAD', `${change.address}: cannot ${change.action} from this plan: ${problem}. Run edgeform plan again.`);
    this.address = change.address;
  }
}

/** A saved plan cannot be applied as it is: stale, incompatible, or for another platform. */
export class StalePlanError extends EdgeformError {
  constructor(message: string) {
    super('EDGEFORM_STALE_PLAN', message);
  }
}

/** Where the lock behind a stale change was seen: held while apply waited, or only when planned. */
export type StaleLock = { taskId: string; seen: 'at-apply' | 'at-plan' };

/**
 * The resource changed since the plan was made, so that the planned change is no longer what
 * a fresh plan would do: it would change other fields, or end elsewhere (e.g. a task that held
 * the lock added a tag the tags merge patch knows nothing of). Nothing is sent. A stale plan
 * for one resource, hence `EDGEFORM_STALE_PLAN`.
 */
export class ChangedSincePlanError extends StalePlanError {
  readonly address: string;
  /** The platform task that held the resource's lock (while apply waited, or when planned); null when none. */
  readonly lockTaskId: string | null;
  /** How the observed fields differ from the plan's `before` (and what else a fresh plan finds), one human line each. */
  readonly differences: readonly string[];
  constructor(stale: { address: string; differences: readonly string[] }, lock: StaleLock | null) {
    const what =
      lock === null
        ? 'changed since the plan was made'
        : lock.seen === 'at-apply'
          ? `changed while platform task ${lock.taskId} held its lock`
          : `changed since the plan was made (platform task ${lock.taskId} held its lock then)`;
    super(
      [`${stale.address} ${what}, so the planned change was not sent:`, ...stale.differences.map((d) => `  ${d}`), 'Run edgeform plan again and review the new plan.'].join('\n'),
    );
    this.address = stale.address;
    this.lockTaskId = lock?.taskId ?? null;
    this.differences = stale.differences;
  }
}

/** A file that is not a plan edgeform can read. */
export class PlanFileError extends EdgeformError {
  constructor(message: string) {
    super('EDGEFORM_PLAN_FILE', message);
  }
}

/**
 * A block without its platform id whose identity (natural key or ownership tags) matches more
 * than one resource: edgeform cannot tell which one the block manages, so it changes none and
 * names every candidate; the user pins one by its id (or removes the others).
 */
export class AmbiguousIdentityError extends EdgeformError {
  readonly candidates: readonly string[];
  constructor(what: { type: string; identity: string; idField: string }, candidates: readonly string[]) {
    super(
      'EDGEFORM_AMBIGUOUS_IDENTITY',
      `${candidates.length} ${what.type} resources match ${what.identity}: ids ${candidates.join(', ')}; set ${what.idField} in the block to pick one (or remove the others)`,
    );
    this.candidates = candidates;
  }
}

/** Who holds an apply lock: written by the apply that takes it, shown by the apply it refuses. */
export interface LockHolder {
  /** os.hostname() of the holder's machine. */
  host: string;
  pid: number;
  /** Its command line (`edgeform apply prod.yaml`), with any secret of the environment redacted. */
  command: string;
  /** When it took the lock, ISO 8601 UTC to the second. */
  since: string;
  /** The CI job it runs in (its URL), when the CI says (GitHub Actions, GitLab CI). */
  job?: string;
}

/** A lock holder in a sentence: "`edgeform apply prod.yaml` (pid 4242 on host ci-7, since 2026-11-26T19:02:11Z, job https://…)". */
export function describeLockHolder(holder: LockHolder): string {
  return `\`${holder.command}\` (pid ${holder.pid} on host ${holder.host}, since ${holder.since}${holder.job ? `, job ${holder.job}` : ''})`;
}

/** How a file lock is released when its holder dies: what a refusal tells the user to expect. */
const FILE_LOCK_RELEASE = 'A lock whose holder was killed is taken over at once on its own host, and after a minute without a refresh from any other.';

/**
 * Another edgeform apply of the same stack holds its lock: two applies at once could create
 * twice. `locked` names what is locked (the stack as typed, or "the stack named X on URL");
 * `holder` is who holds it: its record when it could be read, or what the lock's place knows of
 * it (a database session's name) as text; `release` says how the lock goes away if its holder dies.
 */
export class StackLockedError extends EdgeformError {
  /** Who holds the lock, in words (for a message saying whom an apply waits for). */
  readonly by: string;
  constructor(
    readonly locked: string,
    readonly lockPath: string,
    readonly holder: LockHolder | string | undefined,
    release: string = FILE_LOCK_RELEASE,
  ) {
    const by = typeof holder === 'string' ? holder : holder ? describeLockHolder(holder) : 'an apply that has not recorded who it is (it is starting, or is an older edgeform)';
    super('EDGEFORM_STACK_LOCKED', `another edgeform apply of ${locked} is running: it is locked by ${by} (lock ${lockPath}); wait for it to finish. ${release}`);
    this.by = by;
  }
}

/**
 * A BIND zone file the lexer cannot read on (a stray parenthesis, an unterminated string, a
 * backslash at the end): thrown inside src/config/zone-file.ts and turned there into a located
 * diagnostic, never seen by a caller. `at` is the line and column (1-based) in the zone file.
 */
export class ZoneFileSyntaxError extends EdgeformError {
  constructor(
    code: string,
    readonly summary: string,
    readonly at: { line: number; column: number },
    readonly detail?: string,
  ) {
    super(code, summary);
  }
}

/**
 * A value the code knows is there, missing: an invariant of edgeform broken (a bug), never the
 * stack's or the platform's doing, which have named errors of their own. Deliberately not an
 * EdgeformError: the CLI boundary reports it as a bug.
 */
export class InvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvariantError';
  }
}

/**
 * `value`, which the caller knows is set (a key it put in the map, an item its index was checked
 * against, a group its pattern always fills); an InvariantError naming `what` when it is not,
 * where a `!` would have let undefined run on.
 */
export function must<T>(value: T, what: string): NonNullable<T> {
  if (value === undefined || value === null) throw new InvariantError(`edgeform bug: ${what} is missing`);
  return value;
}
