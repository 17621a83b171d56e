/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): outages, a busy database, diagnostic pings, the worker's metrics and the Sentinel client's reconnect at a failover. */
import '../e2e/sentinel-reconnect.e2e-spec.js';
import '../e2e/outage.e2e-spec.js';
import '../e2e/database-busy.e2e-spec.js';
import '../e2e/diagnostic-pings.e2e-spec.js';
import '../e2e/worker-metrics.e2e-spec.js';
