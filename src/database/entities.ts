import { AppKey } from '../auth/app-key.entity.js';
import { Project } from '../auth/project.entity.js';
import { Campaign } from '../campaigns/campaign.entity.js';
import { Category } from '../campaigns/category.entity.js';
import { LoyaltyProgram } from '../campaigns/loyalty-program.entity.js';
import { Voucher } from '../campaigns/voucher.entity.js';
import { Customer } from '../customers/customer.entity.js';
import { DiagnosticPing } from '../diagnostics/diagnostic-ping.entity.js';
import { Member } from '../members/member.entity.js';
import { InstanceSecret } from './instance-secret.entity.js';

/** Every entity, listed explicitly: ESM builds have no reliable glob loading. */
export const ENTITIES = [Project, AppKey, InstanceSecret, DiagnosticPing, Category, Campaign, LoyaltyProgram, Voucher, Customer, Member];
