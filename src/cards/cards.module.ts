import { Module } from '@nestjs/common';
import { CardIssueRepository } from './card-issue.repository.js';
import { CardRepository } from './card.repository.js';

/**
 * Loyalty cards (the `vouchers` table): the one module that writes them. Campaigns ask it to insert the
 * cards they generate, members to publish or make one at enrolment, points to lock cards and change their
 * point columns. It imports no feature: every feature that has cards builds on it.
 */
@Module({ providers: [CardRepository, CardIssueRepository], exports: [CardRepository, CardIssueRepository] })
export class CardsModule {}
