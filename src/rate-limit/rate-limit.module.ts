import { Module } from '@nestjs/common';
import { AuthFailureLimiter } from './auth-failure-limiter.js';
import { TokenBucketStore } from './token-bucket.store.js';

/**
 * Per-project rate limits (RATE_LIMIT_PER_SECOND, bursts of twice that) and the limit on failed
 * authentications per client address (AUTH_FAILURE_LIMIT), shared by every API process through Redis. The
 * API registers ProjectRateLimitGuard as a global guard after the key guard (the order of global guards is
 * the order they are listed in), and the checks of the key, METRICS_TOKEN (API and worker) and ADMIN_TOKEN
 * ask AuthFailureLimiter, so this module only provides them.
 */
@Module({ providers: [TokenBucketStore, AuthFailureLimiter], exports: [TokenBucketStore, AuthFailureLimiter] })
export class RateLimitModule {}
