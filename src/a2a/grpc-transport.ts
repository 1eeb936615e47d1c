/**
 * The SDK's gRPC client transport. Its package export lists only ESM types, which a CommonJS build
 * cannot import; the types are taken as ESM and the code is required (the package ships CJS too).
 */
import type { GrpcTransportFactory as Factory } from '@a2a-js/sdk/client/grpc' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const GrpcTransportFactory = (require('@a2a-js/sdk/client/grpc') as { GrpcTransportFactory: typeof Factory }).GrpcTransportFactory;
export type GrpcTransportFactory = Factory;
