import { type ArgumentMetadata, Injectable, type PipeTransform, type Type } from '@nestjs/common';
import { ApiError } from '../errors/api-error.js';
import { AppValidationPipe } from './validation.pipe.js';

/**
 * A JSON array body whose items are DTOs (Voucherify's POST of earning rules takes an array). The global
 * pipe leaves arrays alone; this one validates each item like any body, and names the item in `details`.
 */
@Injectable()
export class ArrayBodyPipe<T> implements PipeTransform<unknown, Promise<T[]>> {
  private readonly items = new AppValidationPipe();

  constructor(
    private readonly itemType: Type<T>,
    private readonly maxItems: number,
  ) {}

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<T[]> {
    if (!Array.isArray(value)) throw ApiError.invalidPayload('Request body must be a JSON array');
    if (value.length < 1 || value.length > this.maxItems) throw ApiError.invalidPayload(`Request body must hold 1 to ${this.maxItems} items`);
    const out: T[] = [];
    for (const [i, item] of value.entries()) {
      try {
        out.push((await this.items.transform(item, { ...metadata, metatype: this.itemType })) as T);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw ApiError.invalidPayload(`[${i}] ${error.extra.details ?? error.message}`);
      }
    }
    return out;
  }
}
