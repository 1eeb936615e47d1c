/**
 * Baton's version, as a constant so workflow code can record it too (a unit test keeps it equal to
 * package.json's). Every delegation and graph carries the version that started it (BatonVersion), so
 * an upgrade can tell what is still in flight from an older release.
 */
export const BATON_VERSION = '1.0.0';
