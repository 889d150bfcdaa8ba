import { userTagged } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import { fromTag, type Notifications } from '../../notifications.js';

/** A tag in a recipe or post tells the tagged user, once. */
export const userTaggedHandler = (notifications: Notifications): EventHandler =>
  on(userTagged, (tag, event) => notifications.record(event, fromTag(tag)));
