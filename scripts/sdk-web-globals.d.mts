import type { Plugin } from 'esbuild';
/** esbuild plugin: the bundled LLM SDKs see scripts/sdk-web-globals.ts's fetch globals. */
export declare const sdkWebGlobals: Plugin;
