/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): metrics, the rate limiter and a shutdown during an outage. */
import '../e2e/metrics.e2e-spec.js';
import '../e2e/rate-limit.e2e-spec.js';
import '../e2e/shutdown-outage.e2e-spec.js';
