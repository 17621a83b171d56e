import { Injectable } from '@nestjs/common';
import type { ProjectContext } from '../auth/auth.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { CursorService } from '../common/pagination/cursor.service.js';
import { LoyaltyProgramRepository } from './loyalty-program.repository.js';
import type { LoyaltyProgram } from './loyalty-program.entity.js';
import {
  type ListLoyaltyProgramsQueryDto,
  type LoyaltyProgramDto,
  type LoyaltyProgramListDto,
  PROGRAMS_CURSOR_PREFIX,
  toProgramDto,
} from './dto/loyalty-program.dto.js';

/** Read side of the v2 programs: one per loyalty campaign, status and dates follow the campaign. */
@Injectable()
export class LoyaltyProgramsService {
  constructor(
    private readonly programs: LoyaltyProgramRepository,
    private readonly cursors: CursorService,
  ) {}

  async get(project: ProjectContext, programId: string): Promise<LoyaltyProgramDto> {
    return toProgramDto(await this.find(project, programId));
  }

  /** The program with its campaign (deleted or not), or 404 `program`. */
  async find(project: ProjectContext, programId: string): Promise<LoyaltyProgram> {
    const program = await this.programs.findById(project.id, programId);
    if (!program) throw ApiError.notFound('program', programId);
    return program;
  }

  async list(project: ProjectContext, query: ListLoyaltyProgramsQueryDto): Promise<LoyaltyProgramListDto> {
    const limit = query.limit ?? 10;
    const scope = `${project.id}|programs|limit=${limit}`;
    let after: { createdAt: Date; id: string } | null = null;
    if (query.cursor) {
      const [createdAt, id] = (await this.cursors.decode(PROGRAMS_CURSOR_PREFIX, query.cursor, scope)) as [string, string];
      after = { createdAt: new Date(createdAt), id };
    }
    const rows = await this.programs.listLive(project.id, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const cursor = rows.length > limit && last ? await this.cursors.encode(PROGRAMS_CURSOR_PREFIX, scope, [last.createdAt.toISOString(), last.id]) : null;
    return { data: page.map(toProgramDto), cursor, object: 'list' };
  }
}
