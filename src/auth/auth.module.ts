import { Module } from '@nestjs/common';
import { AuthService } from './auth.service.js';
import { ProjectRepository } from './project.repository.js';

@Module({
  providers: [AuthService, ProjectRepository],
  exports: [AuthService],
})
export class AuthModule {}
