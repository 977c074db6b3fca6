/** The spec file, relative to the repository's root. */
export declare const CLOUD_SPEC_FILE: string;
/** Where the generated module goes, relative to the repository's root. */
export declare const CLOUD_VALUES_TARGETS: readonly string[];
/** The source of the generated module for the spec's text. */
export declare function generateCloudValuesModule(specText: string): Promise<string>;
