/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): migrations on databases of their own. */
import '../e2e/migration-buckets-per-day.e2e-spec.js';
import '../e2e/migration-buckets.e2e-spec.js';
import '../e2e/migration-card-balance.e2e-spec.js';
import '../e2e/migration-card-lifetime.e2e-spec.js';
import '../e2e/migration-event-contract.e2e-spec.js';
import '../e2e/migration-key-names.e2e-spec.js';
import '../e2e/migration-order-discount.e2e-spec.js';
import '../e2e/migration-pending-answers.e2e-spec.js';
