/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): orders, rewards and redemptions. */
import '../e2e/orders.e2e-spec.js';
import '../e2e/coin-orders.e2e-spec.js';
import '../e2e/redemptions.e2e-spec.js';
import '../e2e/rewards.e2e-spec.js';
import '../e2e/rewards-doc.e2e-spec.js';
import '../e2e/dashboard-rewards.e2e-spec.js';
