import type { StatusKit } from '../../../status/status-kit.js';
import type { DataApiBlocksValue } from './value.js';

/** The chain heads the Data API has indexed. */
export function dataApiBlocksSection(blocks: DataApiBlocksValue, kit: StatusKit, nowMs: number): string {
  const rows = blocks.heads.map(
    (h) =>
      `<tr data-da-chain="${kit.escape(h.chain)}">${kit.td(h.chain)}${kit.td(String(h.height))}${kit.td(`${kit.when(h.timestampSeconds)} (${kit.formatDuration(nowMs / 1000 - h.timestampSeconds)} ago)`)}</tr>`,
  );
  return `<h3>Chain heads the Data API has indexed</h3>\n${kit.table('da-heads', ['chain', 'height', 'last block'], rows, 'no chain head')}`;
}
