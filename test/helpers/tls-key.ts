/** A PEM-framed private key for tests of cloud_secret (the emulator checks the framing only): what WEB_TLS_KEY holds for examples/load-balanced.yaml. */
export const TEST_TLS_KEY = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIFakeTestKeyFakeTestKeyFakeTestKeyFakeTe\n-----END PRIVATE KEY-----\n';
