import { Injectable } from '@nestjs/common';

/**
 * Whether the API process is draining: from SIGTERM until its listener closes (SHUTDOWN_DRAIN_MS) it still serves
 * every request, but answers /health/ready with 503 so that a balancer stops sending it new ones.
 */
@Injectable()
export class ShutdownState {
  draining = false;
}
