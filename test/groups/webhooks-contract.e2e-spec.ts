/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): test deliveries, signatures, the Voucherify contract and SDK, the SQL inventory. */
import '../e2e/webhook-test-deliveries.e2e-spec.js';
import '../e2e/webhook-unsendable.e2e-spec.js';
import '../e2e/webhook-verify.e2e-spec.js';
import '../e2e/voucherify-contract.e2e-spec.js';
import '../e2e/voucherify-sdk.e2e-spec.js';
import '../e2e/sql-sources.e2e-spec.js';
