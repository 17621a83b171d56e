/** Small service files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): posting, rewards, redemptions, webhook dispatch and the heartbeat. */
import '../service/posting.service-spec.js';
import '../service/redemption-batches.service-spec.js';
import '../service/redemptions.service-spec.js';
import '../service/rewards.service-spec.js';
import '../service/webhook-dispatch-claim.service-spec.js';
import '../service/webhook-sender.service-spec.js';
import '../service/worker-heartbeat.service-spec.js';
