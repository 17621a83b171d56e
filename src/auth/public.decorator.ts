import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'loyalty:isPublic';

/** Opts a controller or route out of the application-key guard (health checks, the dashboard's files, /metrics). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
