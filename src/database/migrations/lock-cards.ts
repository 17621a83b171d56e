import type { QueryRunner } from 'typeorm';

/**
 * For a migration that writes rows referencing cards (pending entries, ledger rows): takes the cards those rows
 * belong to first, in id order, `FOR NO KEY UPDATE`, as every write path does (docs/architecture.md, "How the
 * engine locks"). An API replica migrates at start while others may still serve: without this, an activation
 * batch holding a card and one of its entries could wait for an entry the migration holds while the migration
 * waits for the batch's. `cardIds` is a query giving the card ids; the locks last until the migration commits.
 */
export async function lockCardsOf(queryRunner: QueryRunner, cardIds: string): Promise<void> {
  await queryRunner.query(`SELECT count(*) FROM (SELECT 1 FROM vouchers WHERE id IN (${cardIds}) ORDER BY id FOR NO KEY UPDATE) AS locked`);
}
