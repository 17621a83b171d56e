import { unavailableDependency } from '../../../common/errors/infrastructure-errors.js';
import type { EventPayloadRepository, PayloadRow } from './event-payload.repository.js';

/** Events stored at this size or more are read alone, beside the loads of the others (see PayloadLoader). */
export const LARGE_EVENT_BYTES = 1_048_576;

/**
 * What a load found for one event: its payload (`data`, `bytes` long); `tooLarge` (its size) when it is
 * larger than the budget, so never read; `failed` (the error) when reading it failed on its own; `later` when
 * it was not read through no fault of its own (no room left in this load, PostgreSQL unreachable, or the
 * load started too late for the claim's lease).
 */
export type Payload = { data: string; bytes: number } | { tooLarge: number } | { failed: string } | { later: true };

/** One event wanted by one claimed delivery: `reserved` bytes of the budget are held for it until it is read. */
export interface PayloadRequest {
  eventId: string;
  storedBytes: number;
  reserved: number;
  /** Epoch ms: a load that starts later than this does not read it (`later`). */
  notAfter: number;
}

/**
 * The event payload bytes of a worker's webhook attempts: reserved by a claim (the events' stored sizes),
 * then held as read until the request ends, at most `max` (WEBHOOK_DISPATCH_MAX_BYTES) but for one event
 * per claim (so that any event within the budget is sent at last).
 */
export class PayloadBudget {
  held = 0;

  constructor(readonly max: number) {}

  free(): number {
    return this.max - this.held;
  }

  /** `to` bytes held where `from` were (reserve: from 0; release: to 0). */
  change(from: number, to: number): void {
    this.held += to - from;
  }
}

interface Waiting {
  request: PayloadRequest;
  resolve: (payload: Payload) => void;
}

/**
 * Reads the payloads of claimed deliveries' events, in loads bounded in bytes, on two lanes with
 * connections of their own (EventPayloadRepository; one load at a time on each), so that one project's
 * huge events never hold up another's:
 *
 * - events stored below LARGE_EVENT_BYTES, on two connections: the requests waiting are read together, up
 *   to the budget's `max` of stored bytes per load (those of one claim arrive together and go in one load;
 *   two loads at once, so that a claim's load seldom waits for the one before: with one connection, the
 *   burst benchmark lost more of its rate, bench/README.md);
 * - larger events, on one connection: each alone.
 *
 * A load returns the payloads that fit the room left in the budget (what is free, plus what its requests
 * reserved), and always the first that fits `max` at all. A load that fails is split in halves, each tried
 * again, down to single events: a payload that cannot be read within the statement timeout fails alone,
 * and the others of its load are read. A failure that is not the events' (PostgreSQL unreachable) makes
 * every request of the load `later`.
 */
export class PayloadLoader {
  /** Small events on connections 0 and 1, large ones on connection 2. */
  private readonly lanes = [new Lane([0, 1]), new Lane([2])];

  constructor(
    private readonly events: EventPayloadRepository,
    readonly budget: PayloadBudget,
  ) {}

  /** The payloads of these requests' events (those of one claim go in as few loads as their sizes allow). */
  load(requests: PayloadRequest[]): Promise<Payload[]> {
    const payloads = requests.map(
      (request) =>
        new Promise<Payload>((resolve) => {
          if (request.storedBytes > this.budget.max) return resolve({ tooLarge: request.storedBytes });
          this.lanes[request.storedBytes >= LARGE_EVENT_BYTES ? 1 : 0].waiting.push({ request, resolve });
        }),
    );
    this.pump();
    return Promise.all(payloads);
  }

  private pump(): void {
    for (const [i, lane] of this.lanes.entries()) {
      while (lane.connections.length && lane.waiting.length) {
        const connection = lane.connections.pop() as number;
        const batch = i === 1 ? lane.waiting.splice(0, 1) : lane.take(this.budget.max);
        void this.run(connection, batch).finally(() => {
          lane.connections.push(connection);
          this.pump();
        });
      }
    }
  }

  private async run(connection: number, batch: Waiting[]): Promise<void> {
    const now = Date.now();
    const late = batch.filter((w) => w.request.notAfter < now);
    for (const w of late) w.resolve({ later: true });
    // Whatever else goes wrong is the load's failure: no request waits for ever (resolving twice is a no-op).
    await this.read(connection, batch.filter((w) => w.request.notAfter >= now)).catch((error: unknown) => batch.forEach((w) => w.resolve({ failed: messageOf(error) })));
  }

  /** Reads the payloads of `batch`; on an error of the events' own, each half again, down to single events. */
  private async read(connection: number, batch: Waiting[]): Promise<void> {
    const ids = [...new Set(batch.map((w) => w.request.eventId))];
    if (!ids.length) return;
    const room = this.budget.free() + batch.reduce((sum, w) => sum + w.request.reserved, 0);
    let rows: PayloadRow[];
    try {
      rows = await this.events.load(connection, ids, this.budget.max, room);
    } catch (error) {
      if (unavailableDependency(error)) {
        for (const w of batch) w.resolve({ later: true });
      } else if (ids.length === 1) {
        for (const w of batch) w.resolve({ failed: messageOf(error) });
      } else {
        const half = new Set(ids.slice(0, Math.ceil(ids.length / 2)));
        await this.read(connection, batch.filter((w) => half.has(w.request.eventId)));
        await this.read(connection, batch.filter((w) => !half.has(w.request.eventId)));
      }
      return;
    }
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const w of batch) {
      const row = byId.get(w.request.eventId);
      if (!row) w.resolve({ failed: 'the event is gone' });
      else if (row.data !== null) w.resolve({ data: row.data, bytes: row.bytes });
      else w.resolve(row.bytes > this.budget.max ? { tooLarge: row.bytes } : { later: true });
    }
  }
}

class Lane {
  readonly waiting: Waiting[] = [];

  /** `connections`: the connections (EventPayloadRepository's) free for this lane's loads. */
  constructor(readonly connections: number[]) {}

  /** The first requests waiting whose events' stored sizes (each event once) stay within `max`; at least one. */
  take(max: number): Waiting[] {
    const seen = new Set<string>();
    let bytes = 0;
    let n = 0;
    for (; n < this.waiting.length; n += 1) {
      const { eventId, storedBytes } = this.waiting[n].request;
      if (seen.has(eventId)) continue;
      if (n > 0 && bytes + storedBytes > max) break;
      seen.add(eventId);
      bytes += storedBytes;
    }
    return this.waiting.splice(0, n);
  }
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
