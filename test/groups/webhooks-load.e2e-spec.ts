/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): webhooks' bounded work and large events. */
import '../e2e/webhook-bounded-work.e2e-spec.js';
import '../e2e/webhooks-large-events.e2e-spec.js';
