import { AppKey } from '../auth/app-key.entity.js';
import { Project } from '../auth/project.entity.js';
import { DiagnosticPing } from '../diagnostics/diagnostic-ping.entity.js';

/** Every entity, listed explicitly: ESM builds have no reliable glob loading. */
export const ENTITIES = [Project, AppKey, DiagnosticPing];
