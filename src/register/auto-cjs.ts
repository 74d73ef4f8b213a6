/**
 * `weft/register` for CommonJS: `node -r weft/register app.js`. `require` is patched by require-in-the-middle,
 * so no loader hook is needed (ESM apps use `--import weft/register`). It requires weft by its package name so
 * that the app's `require('weft')` shares this one copy.
 */
import { registerFromEnvironment } from 'weft';

registerFromEnvironment();
