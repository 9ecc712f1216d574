// The Yuanbao bot gateway's wire format: every WebSocket binary frame is one protobuf `ConnMsg`
// (trpc.yuanbao.conn_common) = { head: Head = 1, data: bytes = 2 }, and `data` holds the business
// message (AuthBindReq, InboundMessagePush, SendC2CMessageReq, …) of the `yuanbao_openclaw_proxy`
// module. A hand-written encoder/decoder for just the messages Hermes uses (no protobuf dependency);
// field numbers follow the Yuanbao bot protocol as Hermes speaks it.
import { getAll, getBytes, getInt, getStr, getUint, parseFields, Writer } from '../protobuf.ts';

/** Head.cmd_type */
export const CMD_TYPE = { request: 0, response: 1, push: 2, pushAck: 3 } as const;
export const CONN_MODULE = 'conn_access';
export const BIZ_MODULE = 'yuanbao_openclaw_proxy';
/** The instance id Hermes-family clients announce in DeviceInfo and the sign-token headers. */
export const INSTANCE_ID = '17';

// ---- ConnMsg ---------------------------------------------------------------------------------------

export interface Head {
  cmdType: number;
  cmd: string;
  seqNo: number;
  msgId: string;
  module: string;
  needAck: boolean;
  status: number;
}

export function encodeConnMsg(head: Partial<Head>, data?: Buffer): Buffer {
  const h = new Writer().uint(1, head.cmdType).str(2, head.cmd).uint(3, head.seqNo).str(4, head.msgId).str(5, head.module).uint(6, head.needAck);
  if (head.status) h.uint(10, BigInt(head.status));
  return new Writer().msg(1, h).bytes(2, data).finish();
}

export function decodeConnMsg(buf: Buffer): { head: Head; data: Buffer } {
  const m = parseFields(buf);
  const h = parseFields(getBytes(m, 1));
  return {
    head: { cmdType: getUint(h, 1), cmd: getStr(h, 2), seqNo: getUint(h, 3), msgId: getStr(h, 4), module: getStr(h, 5), needAck: getUint(h, 6) === 1, status: getInt(h, 10) },
    data: getBytes(m, 2),
  };
}

// ---- auth-bind -------------------------------------------------------------------------------------

export interface AuthBind {
  bizId: string;
  uid: string;
  source: string;
  token: string;
  appVersion?: string;
  os?: string;
  botVersion?: string;
  routeEnv?: string;
}

export function encodeAuthBindReq(a: AuthBind): Buffer {
  const auth = new Writer().str(1, a.uid, true).str(2, a.source, true).str(3, a.token, true);
  const dev = new Writer().str(1, a.appVersion).str(2, a.os).str(10, INSTANCE_ID).str(24, a.botVersion);
  return new Writer().str(1, a.bizId, true).msg(2, auth).msg(3, dev).str(5, a.routeEnv).finish();
}

export function decodeAuthBindReq(buf: Buffer): AuthBind {
  const m = parseFields(buf);
  const auth = parseFields(getBytes(m, 2));
  const dev = parseFields(getBytes(m, 3));
  return { bizId: getStr(m, 1), uid: getStr(auth, 1), source: getStr(auth, 2), token: getStr(auth, 3), appVersion: getStr(dev, 1), os: getStr(dev, 2), botVersion: getStr(dev, 24), routeEnv: getStr(m, 5) };
}

/** AuthBindRsp: code = 1, message = 2, connect_id = 3. */
export const encodeAuthBindRsp = (r: { code: number; message?: string; connectId?: string }) => new Writer().uint(1, BigInt(r.code)).str(2, r.message).str(3, r.connectId).finish();
export function decodeAuthBindRsp(buf: Buffer): { code: number; message: string; connectId: string } {
  const m = parseFields(buf);
  return { code: getInt(m, 1), message: getStr(m, 2), connectId: getStr(m, 3) };
}

// ---- message bodies --------------------------------------------------------------------------------

export interface ImageInfo {
  type?: number;
  size?: number;
  width?: number;
  height?: number;
  url?: string;
}

export interface MsgContent {
  text?: string;
  uuid?: string;
  imageFormat?: number;
  data?: string;
  desc?: string;
  ext?: string;
  sound?: string;
  imageInfoArray?: ImageInfo[];
  index?: number;
  url?: string;
  fileSize?: number;
  fileName?: string;
}

/** One element of a message: `TIMTextElem`, `TIMImageElem`, `TIMFileElem`, `TIMCustomElem`, … */
export interface MsgElem {
  msgType: string;
  content: MsgContent;
}

const STR_FIELDS: [number, keyof MsgContent][] = [[1, 'text'], [2, 'uuid'], [4, 'data'], [5, 'desc'], [6, 'ext'], [7, 'sound'], [10, 'url'], [12, 'fileName']];
const INT_FIELDS: [number, keyof MsgContent][] = [[3, 'imageFormat'], [9, 'index'], [11, 'fileSize']];

function encodeElem(e: MsgElem): Writer {
  const c = new Writer();
  for (const [n, k] of STR_FIELDS) c.str(n, e.content[k] as string | undefined);
  for (const [n, k] of INT_FIELDS) c.uint(n, e.content[k] as number | undefined);
  for (const img of e.content.imageInfoArray ?? []) c.msg(8, new Writer().uint(1, img.type).uint(2, img.size).uint(3, img.width).uint(4, img.height).str(5, img.url));
  return new Writer().str(1, e.msgType).msg(2, c);
}

function decodeElem(buf: Buffer): MsgElem {
  const m = parseFields(buf);
  const c = parseFields(getBytes(m, 2));
  const content: MsgContent = {};
  for (const [n, k] of STR_FIELDS) {
    const v = getStr(c, n);
    if (v) (content as Record<string, unknown>)[k] = v;
  }
  for (const [n, k] of INT_FIELDS) {
    const v = getUint(c, n);
    if (v) (content as Record<string, unknown>)[k] = v;
  }
  const imgs = getAll(c, 8).map((b) => {
    const i = parseFields(b);
    return { type: getUint(i, 1), size: getUint(i, 2), width: getUint(i, 3), height: getUint(i, 4), url: getStr(i, 5) };
  });
  if (imgs.length) content.imageInfoArray = imgs;
  return { msgType: getStr(m, 1), content };
}

// ---- InboundMessagePush ------------------------------------------------------------------------------

export interface InboundPush {
  callbackCommand: string;
  fromAccount: string;
  toAccount: string;
  senderNickname: string;
  groupId: string;
  groupCode: string;
  groupName: string;
  msgSeq: number;
  msgRandom: number;
  msgTime: number;
  msgKey: string;
  msgId: string;
  msgBody: MsgElem[];
  cloudCustomData: string;
  botOwnerId: string;
  clawMsgType: number;
  traceId: string;
}

export function encodeInboundPush(p: Partial<InboundPush>): Buffer {
  const w = new Writer().str(1, p.callbackCommand).str(2, p.fromAccount).str(3, p.toAccount).str(4, p.senderNickname).str(5, p.groupId).str(6, p.groupCode).str(7, p.groupName);
  w.uint(8, p.msgSeq).uint(9, p.msgRandom).uint(10, p.msgTime).str(11, p.msgKey).str(12, p.msgId);
  for (const e of p.msgBody ?? []) w.msg(13, encodeElem(e));
  w.str(14, p.cloudCustomData).str(16, p.botOwnerId).uint(18, p.clawMsgType);
  if (p.traceId) w.msg(20, new Writer().str(1, p.traceId));
  return w.finish();
}

export function decodeInboundPush(buf: Buffer): InboundPush {
  const m = parseFields(buf);
  return {
    callbackCommand: getStr(m, 1), fromAccount: getStr(m, 2), toAccount: getStr(m, 3), senderNickname: getStr(m, 4),
    groupId: getStr(m, 5), groupCode: getStr(m, 6), groupName: getStr(m, 7),
    msgSeq: getUint(m, 8), msgRandom: getUint(m, 9), msgTime: getUint(m, 10), msgKey: getStr(m, 11), msgId: getStr(m, 12),
    msgBody: getAll(m, 13).map(decodeElem), cloudCustomData: getStr(m, 14), botOwnerId: getStr(m, 16), clawMsgType: getUint(m, 18),
    traceId: getStr(parseFields(getBytes(m, 20)), 1),
  };
}

// ---- sends -------------------------------------------------------------------------------------------

/** SendC2CMessageReq: msg_id 1, to_account 2, from_account 3, msg_random 4, msg_body 5, group_code 6. */
export function encodeSendC2C(r: { msgId?: string; to: string; from: string; random?: number; body: MsgElem[]; groupCode?: string }): Buffer {
  const w = new Writer().str(1, r.msgId).str(2, r.to, true).str(3, r.from).uint(4, r.random);
  for (const e of r.body) w.msg(5, encodeElem(e));
  return w.str(6, r.groupCode).finish();
}

export function decodeSendC2C(buf: Buffer): { msgId: string; to: string; from: string; body: MsgElem[]; groupCode: string } {
  const m = parseFields(buf);
  return { msgId: getStr(m, 1), to: getStr(m, 2), from: getStr(m, 3), body: getAll(m, 5).map(decodeElem), groupCode: getStr(m, 6) };
}

/** SendGroupMessageReq: msg_id 1, group_code 2, from_account 3, to_account 4, random 5, msg_body 6, ref_msg_id 7. */
export function encodeSendGroup(r: { msgId?: string; groupCode: string; from: string; to?: string; random?: string; body: MsgElem[]; refMsgId?: string }): Buffer {
  const w = new Writer().str(1, r.msgId).str(2, r.groupCode, true).str(3, r.from).str(4, r.to).str(5, r.random);
  for (const e of r.body) w.msg(6, encodeElem(e));
  return w.str(7, r.refMsgId).finish();
}

export function decodeSendGroup(buf: Buffer): { msgId: string; groupCode: string; from: string; body: MsgElem[]; refMsgId: string } {
  const m = parseFields(buf);
  return { msgId: getStr(m, 1), groupCode: getStr(m, 2), from: getStr(m, 3), body: getAll(m, 6).map(decodeElem), refMsgId: getStr(m, 7) };
}

/** SendPrivateHeartbeatReq (from 1, to 2, heartbeat 3) / SendGroupHeartbeatReq (from 1, to 2, group 3, send_time 4, heartbeat 5): the "typing" signal. */
export const HEARTBEAT = { running: 1, finish: 2 } as const;
export const encodePrivateHeartbeat = (from: string, to: string, hb: number) => new Writer().str(1, from, true).str(2, to, true).uint(3, hb).finish();
export const encodeGroupHeartbeat = (from: string, group: string, hb: number, now = Date.now()) => new Writer().str(1, from, true).str(2, '', true).str(3, group, true).uint(4, now).uint(5, hb).finish();
