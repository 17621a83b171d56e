import { Injectable } from '@nestjs/common';
import { DataCipher, UnreadableValueError } from '../../common/crypto/data-cipher.js';
import { DistributionRepository } from '../distributions/distribution.repository.js';
import { WebhookSecretRepository } from './webhook-secret.repository.js';

/** Rows read per statement. */
export const RESEAL_BATCH = 500;

/** What a pass did in one table: rows read, rewritten, left (written meanwhile by a request: already current), unreadable. */
export interface ResealCounts {
  checked: number;
  rewritten: number;
  changed_meanwhile: number;
  unreadable: number;
}

/**
 * `cli.js encrypt-secrets` (docs/operations.md, "Secrets at rest"): every webhook secret and every
 * distribution's custom headers not stored as a write would store them now is rewritten so: sealed under
 * DATA_ENCRYPTION_KEY (plain values, and values sealed under a key of DATA_ENCRYPTION_PREVIOUS_KEYS), or
 * plain when no key is set (turning encryption off). Rows are read in pages of RESEAL_BATCH in key order and
 * each is rewritten by one conditional UPDATE (only if it still holds what was read), so the command can run
 * beside the API and the worker, be interrupted, and be run again.
 */
@Injectable()
export class SecretsAtRestService {
  constructor(
    private readonly secrets: WebhookSecretRepository,
    private readonly distributions: DistributionRepository,
    private readonly cipher: DataCipher,
  ) {}

  async reseal(): Promise<{ webhook_secrets: ResealCounts; distributions: ResealCounts }> {
    const secrets = counts();
    for (let after = ''; ; ) {
      const page = await this.secrets.storedPage(after, RESEAL_BATCH);
      for (const row of page) {
        secrets.checked += 1;
        if (this.cipher.isCurrent(row.secret) && (row.previousSecret === null || this.cipher.isCurrent(row.previousSecret))) continue;
        await count(secrets, () => this.secrets.reseal(row));
      }
      if (page.length < RESEAL_BATCH) break;
      after = page[page.length - 1].projectId;
    }
    const distributions = counts();
    for (let after = ''; ; ) {
      const page = await this.distributions.storedHeadersPage(after, RESEAL_BATCH);
      for (const row of page) {
        distributions.checked += 1;
        if (this.distributions.headersCurrent(row)) continue;
        await count(distributions, () => this.distributions.resealHeaders(row));
      }
      if (page.length < RESEAL_BATCH) break;
      after = page[page.length - 1].id;
    }
    return { webhook_secrets: secrets, distributions };
  }
}

function counts(): ResealCounts {
  return { checked: 0, rewritten: 0, changed_meanwhile: 0, unreadable: 0 };
}

async function count(into: ResealCounts, reseal: () => Promise<boolean>): Promise<void> {
  try {
    if (await reseal()) into.rewritten += 1;
    else into.changed_meanwhile += 1;
  } catch (error) {
    if (!(error instanceof UnreadableValueError)) throw error;
    into.unreadable += 1;
  }
}
