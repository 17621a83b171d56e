import { type ArgumentMetadata, Injectable, SetMetadata, ValidationPipe, type ValidationError, type ValidationPipeOptions } from '@nestjs/common';
import { ApiError } from '../errors/api-error.js';

const IGNORE_UNKNOWN_FIELDS = 'loyalty:ignore-unknown-fields';

/**
 * Marks a body DTO whose unknown fields are dropped instead of rejected: Voucherify's PUT
 * /v1/loyalties ignores them, and clients written for it send fields we do not update.
 */
export const IgnoreUnknownFields = (): ClassDecorator => SetMetadata(IGNORE_UNKNOWN_FIELDS, true);

const OPTIONAL_BODY = 'loyalty:optional-body';
/** A body DTO whose whole body may be left out (Voucherify's rollback): no body is read as `{}`. */
export const OptionalBody = (): ClassDecorator => SetMetadata(OPTIONAL_BODY, true);

const OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  validationError: { target: false, value: false },
  exceptionFactory: (errors: ValidationError[]) => new ValidationFailure(flatten(errors)),
};

/**
 * class-validator for every DTO: unknown fields are rejected (docs/errors.md), and the error names
 * the offending property by its full path (`voucher.code_config.length …`). Body problems are
 * `invalid_payload`; query and path problems are `invalid_query_params`.
 */
@Injectable()
export class AppValidationPipe extends ValidationPipe {
  private readonly lenient = new ValidationPipe({ ...OPTIONS, forbidNonWhitelisted: false });

  constructor() {
    super(OPTIONS);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && value === undefined && metadata.metatype !== undefined && Reflect.getMetadata(OPTIONAL_BODY, metadata.metatype) === true) value = {};
    if (metadata.type === 'body' && (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value))) {
      if (metadata.metatype && this.toValidate(metadata)) throw ApiError.invalidPayload('Request body must be a JSON object');
    }
    try {
      const lenient = metadata.metatype !== undefined && Reflect.getMetadata(IGNORE_UNKNOWN_FIELDS, metadata.metatype) === true;
      return await (lenient ? this.lenient.transform(value, metadata) : super.transform(value, metadata));
    } catch (error) {
      if (!(error instanceof ValidationFailure)) throw error;
      const details = error.messages.join('; ');
      throw metadata.type === 'body' ? ApiError.invalidPayload(details) : ApiError.invalidQueryParams(details);
    }
  }
}

class ValidationFailure extends Error {
  constructor(readonly messages: string[]) {
    super(messages.join('; '));
  }
}

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => {
      if (constraint === 'whitelistValidation') return `property ${path} is not allowed`;
      // class-validator starts messages with the bare property name (ours may go on with `.key`); replace it
      // with the full path.
      const own = message.startsWith(`${error.property} `) || message.startsWith(`${error.property}.`);
      return own ? `${path}${message.slice(error.property.length)}` : `${path}: ${message}`;
    });
    return [...own, ...flatten(error.children ?? [], path)];
  });
}
