import { Module } from '@nestjs/common';
import { TokenBucketStore } from './token-bucket.store.js';

/**
 * Per-project rate limits (RATE_LIMIT_PER_SECOND, bursts of twice that) shared by every API process
 * through Redis. The API registers ProjectRateLimitGuard as a global guard after the key guard (the order
 * of global guards is the order they are listed in), so this module only provides the buckets.
 */
@Module({ providers: [TokenBucketStore], exports: [TokenBucketStore] })
export class RateLimitModule {}
