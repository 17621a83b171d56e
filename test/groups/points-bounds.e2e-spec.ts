/** Small e2e files run in one sandbox, database and queue prefix (jest.config.js, "Test groups"): pending points and the bounds of point expiry. */
import '../e2e/pending-points.e2e-spec.js';
import '../e2e/points-expiry-bounds.e2e-spec.js';
