// The SWC options of both the build (scripts/compile.mjs) and jest (jest.config.js): ES modules with the
// legacy decorators and their design-time metadata that Nest's injection, TypeORM and class-validator read.
export const swcOptions = {
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    keepClassNames: true,
  },
  module: { type: 'es6' },
};
