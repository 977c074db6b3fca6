// The helper lives with the kinds' schemas, which use it too (the CDN options); config/ re-exports it.
export { didYouMean, suggest } from '../kinds/did-you-mean.js';
