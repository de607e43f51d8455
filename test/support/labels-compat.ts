/**
 * Labels of a History for the reference implementations kept in test/support (*-reference*),
 * whichever way the History holds them: the label arrays of commit 0813a55 or the label tables
 * made on demand (valueLabelTable / txnLabelTable, valueCount). The references must produce the
 * same anomaly messages as the code they are compared with, on either model.
 */

import type { History } from '../../src/history/model.ts';

interface AnyLabels {
  valueLabels?: readonly string[];
  txnLabels?: readonly string[];
  valueLabelTable?: { get(i: number): string };
  txnLabelTable?: { get(i: number): string };
  valueCount?: number;
}

export function valueLabelOf(h: History, v: number): string {
  const x = h as unknown as AnyLabels;
  return x.valueLabels !== undefined ? x.valueLabels[v]! : x.valueLabelTable!.get(v);
}

export function txnLabelOf(h: History, t: number): string {
  const x = h as unknown as AnyLabels;
  return x.txnLabels !== undefined ? x.txnLabels[t]! : x.txnLabelTable!.get(t);
}

export function valueCountOf(h: History): number {
  const x = h as unknown as AnyLabels;
  return x.valueLabels !== undefined ? x.valueLabels.length : x.valueCount!;
}
