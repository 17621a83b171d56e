/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): campaigns, programs, earning rules, deletion and async actions. */
import '../e2e/loyalties.e2e-spec.js';
import '../e2e/programs.e2e-spec.js';
import '../e2e/earning-rules.e2e-spec.js';
import '../e2e/campaign-deletion.e2e-spec.js';
import '../e2e/campaign-deletion-races.e2e-spec.js';
import '../e2e/async-actions.e2e-spec.js';
