import type { ProjectContext } from '../auth/auth.service.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by requestIdMiddleware before anything else runs. */
    id: string;
    /** Set by AppKeyGuard on authenticated routes. */
    project?: ProjectContext;
  }
}
