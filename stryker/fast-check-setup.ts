import fc from 'fast-check';

/**
 * Under mutation testing a property only has to fail: a killed mutant's counterexample is never
 * read, and shrinking it (every run of every property a mutant breaks) took most of a module's
 * run. The project's own runs shrink as before.
 */
fc.configureGlobal({ ...fc.readConfigureGlobal(), endOnFailure: true });
