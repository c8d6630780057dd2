import { createApp } from './create-app.js';

// Run by the CDK CLI (cdk.json "app"), which synthesizes the app when this process exits.
createApp();
