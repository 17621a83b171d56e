import { Init1795267621531 } from './1795267621531-Init.js';
import { LoyaltyCampaigns1795268201228 } from './1795268201228-LoyaltyCampaigns.js';
import { Members1795272441596 } from './1795272441596-Members.js';
import { PendingPoints1795435292835 } from './1795435292835-PendingPoints.js';
import { ActivationPayloads1795443725088 } from './1795443725088-ActivationPayloads.js';
import { Webhooks1795445288881 } from './1795445288881-Webhooks.js';
import { TestDeliveries1795460000000 } from './1795460000000-TestDeliveries.js';
import { CardPointsBigint1795480000000 } from './1795480000000-CardPointsBigint.js';
import { FairDispatch1795490000000 } from './1795490000000-FairDispatch.js';
import { BoundedWebhookWork1795500000000 } from './1795500000000-BoundedWebhookWork.js';
import { AppKeyNames1795510000000 } from './1795510000000-AppKeyNames.js';
import { OpaquePingWorkers1795520000000 } from './1795520000000-OpaquePingWorkers.js';
import { CardGenerationTurns1795530000000 } from './1795530000000-CardGenerationTurns.js';
import { CardLifetime1795570000000 } from './1795570000000-CardLifetime.js';
import { EventPayloadFields1795580000000 } from './1795580000000-EventPayloadFields.js';
import { FunctionFiles1795540000000 } from './1795540000000-FunctionFiles.js';
import { IdempotencyKeys1795550000000 } from './1795550000000-IdempotencyKeys.js';
import { PointBuckets1795560000000 } from './1795560000000-PointBuckets.js';
import { PendingPointsAnswers1795572900000 } from './1795572900000-PendingPointsAnswers.js';
import { AppKeyNamesRequired1795572950000 } from './1795572950000-AppKeyNamesRequired.js';
import { AsyncActions1795573000000 } from './1795573000000-AsyncActions.js';
import { BucketsPerDay1795610000000 } from './1795610000000-BucketsPerDay.js';
import { BoundedEvents1795620000000 } from './1795620000000-BoundedEvents.js';
import { RecoverSince1795640000000 } from './1795640000000-RecoverSince.js';
import { CampaignDeletion1795641000000 } from './1795641000000-CampaignDeletion.js';
import { EventContract1795700000000 } from './1795700000000-EventContract.js';

/** Every migration in order. New ones come from `npm run migration:generate -- src/database/migrations/<Name>`. */
export const MIGRATIONS = [Init1795267621531, LoyaltyCampaigns1795268201228, Members1795272441596, PendingPoints1795435292835, ActivationPayloads1795443725088, Webhooks1795445288881, TestDeliveries1795460000000, CardPointsBigint1795480000000, FairDispatch1795490000000, BoundedWebhookWork1795500000000, AppKeyNames1795510000000, OpaquePingWorkers1795520000000, CardGenerationTurns1795530000000, FunctionFiles1795540000000, IdempotencyKeys1795550000000, PointBuckets1795560000000, CardLifetime1795570000000, PendingPointsAnswers1795572900000, AppKeyNamesRequired1795572950000, AsyncActions1795573000000, EventPayloadFields1795580000000, BucketsPerDay1795610000000, BoundedEvents1795620000000, RecoverSince1795640000000, CampaignDeletion1795641000000, EventContract1795700000000];
