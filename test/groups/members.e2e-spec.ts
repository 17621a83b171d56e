/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): members, customers, their list and balances. */
import '../e2e/members.e2e-spec.js';
import '../e2e/loyalty-members.e2e-spec.js';
import '../e2e/member-list.e2e-spec.js';
import '../e2e/customers.e2e-spec.js';
import '../e2e/balance.e2e-spec.js';
