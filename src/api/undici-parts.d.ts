// The parts of undici src/api/pool.ts loads by path (undici declares types for its index only).
declare module 'undici/lib/dispatcher/pool.js' {
  const Pool: typeof import('undici').Pool;
  export default Pool;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: typeof import('undici').Dispatcher;
  export default Dispatcher;
}
declare module 'undici/lib/api/api-request.js' {
  const request: import('undici').Dispatcher['request'];
  export default request;
}
