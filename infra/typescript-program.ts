/**
 * A TypeScript program over some of the project's files, with the compiler options the build uses,
 * for tools that read the code's own types and TSDoc (the configuration reference, the options check).
 */
import ts from 'typescript';
import { projectRoot } from '../src/runtime/project-root';

export function projectProgram(files: string[]): ts.Program {
  return ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    baseUrl: projectRoot(),
    paths: {
      '@a2a-js/sdk': ['./node_modules/@a2a-js/sdk/dist/index.d.cts'],
      '@a2a-js/sdk/*': ['./node_modules/@a2a-js/sdk/dist/*/index.d.cts'],
    },
  });
}
