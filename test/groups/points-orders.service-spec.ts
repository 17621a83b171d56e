/** Small service files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): activation, caps, event bounds, idempotency, members and orders. */
import '../service/activation.service-spec.js';
import '../service/diagnostic-ping-sweep.service-spec.js';
import '../service/earning-rule-caps.service-spec.js';
import '../service/event-bounds.service-spec.js';
import '../service/idempotency.service-spec.js';
import '../service/members.service-spec.js';
import '../service/order-batches.service-spec.js';
import '../service/orders.service-spec.js';
