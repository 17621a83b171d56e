/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): the HTTP edge: health, errors, documents, authentication, jobs and the README. */
import '../e2e/health.e2e-spec.js';
import '../e2e/errors.e2e-spec.js';
import '../e2e/docs.e2e-spec.js';
import '../e2e/openapi.e2e-spec.js';
import '../e2e/schema.e2e-spec.js';
import '../e2e/build-if-needed.e2e-spec.js';
import '../e2e/auth.e2e-spec.js';
import '../e2e/auth-limits.e2e-spec.js';
import '../e2e/jobs.e2e-spec.js';
import '../e2e/queue-board.e2e-spec.js';
import '../e2e/readme-examples.e2e-spec.js';
