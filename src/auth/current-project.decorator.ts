import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { ProjectContext } from './auth.service.js';

/** The project the guard authenticated; services take it as their first argument. */
export const CurrentProject = createParamDecorator((_data: unknown, ctx: ExecutionContext): ProjectContext => {
  const project = ctx.switchToHttp().getRequest<Request>().project;
  // The guard runs first on every non-public route, so a missing project is a wiring bug.
  if (!project) throw new Error('CurrentProject used on a route without the application-key guard');
  return project;
});
