/** The soonest day on which some of a card's pending points activate, and how many activate that day. */
export interface NextActivation {
  /** UTC date (`YYYY-MM-DD`), as Voucherify's `next_activation.date`. */
  date: string;
  points: number;
}

/**
 * Asked by the v2 card (`next_activation`), answered by the module that owns the pending entries (points).
 * Members stand below points and cannot import it: the composition (`app/`) binds this token to the pending
 * entries' repository, so the question points down and nothing imports upwards.
 */
export abstract class CardActivations {
  abstract nextActivations(projectId: string, cardIds: string[]): Promise<Map<string, NextActivation>>;
}
