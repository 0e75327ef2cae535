import type { IDataObject } from 'n8n-workflow';

import {
	MAX_REMEMBERED_DELIVERIES,
	rememberDelivery,
	wasDelivered,
} from '../../../../nodes/DocumentExtractionTrigger/delivery';

describe('remembered deliveries', () => {
	it('remembers a bounded number of deliveries, forgetting the oldest', () => {
		const data: IDataObject = {};
		for (let i = 0; i <= MAX_REMEMBERED_DELIVERIES; i++)
			rememberDelivery(data, `task-${i}|complete`);
		expect(data.recentDeliveries).toHaveLength(MAX_REMEMBERED_DELIVERIES);
		expect(wasDelivered(data, 'task-0|complete')).toBe(false);
		expect(wasDelivered(data, 'task-1|complete')).toBe(true);
		expect(wasDelivered(data, `task-${MAX_REMEMBERED_DELIVERIES}|complete`)).toBe(true);
	});
});
