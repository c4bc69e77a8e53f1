import {
  BatchEventSchema,
  BatchItemInputSchema,
  BatchItemSchema,
  BatchItemsPageSchema,
  BatchRequestSchema,
  BatchSchema,
  WebhookStateSchema,
} from "../batches/schema.ts";
import { IbanBuildRequestSchema, IbanBuildResponseSchema } from "../iban/build/schema.ts";
import { IbanResultSchema } from "../iban/schema.ts";
import { ErrorResponseSchema, ErrorSchema } from "../kernel/errors.ts";
import {
  FieldMatchSchema,
  MatchRecordSchema,
  MatchRequestSchema,
  MatchResultSchema,
} from "../matching/schema.ts";
import {
  MonitorCreationSchema,
  MonitorEventDataSchema,
  MonitorEventPageSchema,
  MonitorEventRecordSchema,
  MonitorEventSchema,
  MonitorItemSchema,
  MonitorListRequestSchema,
  MonitorPageSchema,
  MonitorRequestSchema,
  MonitorSchema,
  MonitorsCreatedSchema,
  MonitorUpdateSchema,
} from "../monitors/schema.ts";
import { ValidationRecordSchema } from "../validation/records.ts";
import { VatResultSchema } from "../vat/schema.ts";
import { StatusSchema } from "../vat/status.ts";
import {
  HealthSchema,
  UsageBlockSchema,
  UsageSchema,
  ValidateRequestSchema,
  ValidateResponseSchema,
} from "./schemas.ts";

/** Named schemas, registered once so the OpenAPI document refers to them by name. */
export const models = {
  Error: ErrorSchema,
  ErrorResponse: ErrorResponseSchema,
  ValidateRequest: ValidateRequestSchema,
  ValidateResponse: ValidateResponseSchema,
  IbanResult: IbanResultSchema,
  IbanBuildRequest: IbanBuildRequestSchema,
  IbanBuildResponse: IbanBuildResponseSchema,
  VatResult: VatResultSchema,
  MatchRequest: MatchRequestSchema,
  MatchResult: MatchResultSchema,
  FieldMatch: FieldMatchSchema,
  MatchRecord: MatchRecordSchema,
  UsageBlock: UsageBlockSchema,
  Usage: UsageSchema,
  Health: HealthSchema,
  ViesStatus: StatusSchema,
  BatchItemInput: BatchItemInputSchema,
  BatchRequest: BatchRequestSchema,
  Batch: BatchSchema,
  WebhookState: WebhookStateSchema,
  BatchItem: BatchItemSchema,
  BatchItemsPage: BatchItemsPageSchema,
  BatchEvent: BatchEventSchema,
  ValidationRecord: ValidationRecordSchema,
  MonitorItem: MonitorItemSchema,
  MonitorRequest: MonitorRequestSchema,
  MonitorListRequest: MonitorListRequestSchema,
  Monitor: MonitorSchema,
  MonitorsCreated: MonitorsCreatedSchema,
  MonitorCreation: MonitorCreationSchema,
  MonitorPage: MonitorPageSchema,
  MonitorUpdate: MonitorUpdateSchema,
  MonitorEventData: MonitorEventDataSchema,
  MonitorEvent: MonitorEventSchema,
  MonitorEventRecord: MonitorEventRecordSchema,
  MonitorEventPage: MonitorEventPageSchema,
};
