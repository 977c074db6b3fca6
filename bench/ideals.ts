/**
 * The ideal wall time of an apply that creates a world (the bench's creates rows), as the
 * platform and the defaults allow it at best. Pure.
 */

/** What an apply of creates is made of, for its ideal. */
export interface CreatesWorld {
  /** Blocks created: one request each (N). */
  creates: number;
  /** Of them, creates that start a platform task and hold a task slot (--max-tasks) while it runs. */
  taskCreates: number;
  /** How long each task takes, ms (0: the creates start none). */
  taskMs: number;
  /** The list pages the plan reads (World.listPages). */
  listPages: number;
  /** L: one request's time, ms. */
  latencyMs: number;
  /** --parallelism: requests on the wire at once (P). */
  parallelism: number;
  /** --max-tasks: changes holding a task slot at once. */
  maxTasks: number;
  /** `node -e 0`, ms: what starting any node process costs. */
  startupMs: number;
}

/**
 * The ideal wall of an apply of creates: node's start-up, the plan's list pages (P at a time),
 * then the creates, bounded by the larger of two limits. Requests: every create is one request,
 * P at a time, and the last one's task still runs after it (task + N·L/P, the ideal).
 * Task slots: at most --max-tasks creates hold a task at once, each from the read before it is
 * sent to the read that confirms it (the read, the create, the poll that sees the task end and
 * the confirming read: task + 4L), so N_task creates take at least ⌈N_task / max-tasks⌉ such
 * rounds. At the defaults (500 slots, P = 10) the slots bind only for tasks longer than about
 * (N/P − 4·⌈N/500⌉)·L / (⌈N/500⌉ − 1): for 1,000 creates at L = 20 ms, 1.8 s; with 200 slots
 * (the default before), 1,000 floating IPs with 0.5 s tasks took at least 5 × (0.5 s + 4L),
 * more than 0.5 s + N·L/P.
 */
export function createsIdealMs(w: CreatesWorld): number {
  const L = w.latencyMs;
  const planReads = Math.ceil(w.listPages / w.parallelism) * L;
  const byRequests = w.taskMs + (w.creates * L) / w.parallelism;
  const bySlots = w.taskCreates === 0 ? 0 : Math.ceil(w.taskCreates / w.maxTasks) * (w.taskMs + 4 * L);
  return w.startupMs + planReads + Math.max(byRequests, bySlots);
}
