/** The spec file, relative to the repository's root. */
export declare const CDN_SPEC_FILE: string;
/** Where the generated module goes, relative to the repository's root. */
export declare const CDN_OPTIONS_TARGETS: readonly string[];
/** The source of the generated module for the spec's text. */
export declare function generateCdnOptionsModule(specText: string): Promise<string>;
